/** The usage log's filters by endpoint, streaming and error type (components/LogKindFilters.vue). */
export const logFiltersEn = {
  endpoint: 'Endpoint',
  anyEndpoint: 'Any endpoint',
  streamed: 'Streamed',
  streamedAny: 'Streamed or not',
  streamedYes: 'Streamed',
  streamedNo: 'Not streamed',
  errorType: 'Error type',
  errorTypePlaceholder: 'Any error type',
};

export const logFiltersZh: typeof logFiltersEn = {
  endpoint: '接口',
  anyEndpoint: '全部接口',
  streamed: '流式',
  streamedAny: '流式与非流式',
  streamedYes: '流式',
  streamedNo: '非流式',
  errorType: '错误类型',
  errorTypePlaceholder: '全部错误类型',
};

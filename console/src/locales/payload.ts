/** Messages of the usage log's captured body and reply. */
export const payloadEn = {
  title: 'Body and reply',
  loading: 'Loading the captured body…',
  notCaptured: 'Not captured: payload capture was off for this key, or the payload lapsed or was deleted.',
  conversation: 'Conversation',
  raw: 'Raw JSON',
  request: 'Request',
  reply: 'Reply',
  truncated: 'Cut at the capture limit: {bytes} bytes in full',
  noTurns: 'No conversation to show; see the raw JSON.',
  keptUntil: 'Kept until {time} · {stored} bytes stored ({raw} before compression)',
  thinking: 'Thinking',
  toolCall: 'Tool call: {name}',
  toolResult: 'Tool result',
};

export const payloadZh = {
  title: '请求体与回复',
  loading: '正在加载记录的请求体…',
  notCaptured: '未记录：此密钥未开启请求体记录，或记录已过期或被删除。',
  conversation: '对话',
  raw: '原始 JSON',
  request: '请求',
  reply: '回复',
  truncated: '已在记录上限处截断：完整大小 {bytes} 字节',
  noTurns: '没有可显示的对话；请查看原始 JSON。',
  keptUntil: '保留至 {time} · 存储 {stored} 字节（压缩前 {raw} 字节）',
  thinking: '思考',
  toolCall: '工具调用：{name}',
  toolResult: '工具结果',
};

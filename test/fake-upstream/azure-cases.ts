/** The Azure fixture cases, named once: the SDK suite iterates them, and the coverage check counts them. */
export const azureReplyCases = ['text', 'tool-call', 'content-filter'] as const;
export const azureJsonOnlyCases = ['tool-result-reply'] as const;
export const azureErrorCases = [
  ['error-content-filter', 400],
  ['error-401', 401],
  ['error-404', 404],
  ['error-deployment-not-found', 404],
  ['error-429', 429],
  ['error-429-ms', 429],
] as const;

export const azureFixtureNames: readonly string[] = [
  ...azureReplyCases.flatMap((caseName) => [`azure-${caseName}`, `azure-${caseName}-stream`]),
  ...azureJsonOnlyCases.map((caseName) => `azure-${caseName}`),
  ...azureErrorCases.map(([caseName]) => `azure-${caseName}`),
];

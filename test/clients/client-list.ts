/** Every row of the matrix: the agent CLIs, then the SDKs. */
import { agentClients } from './client-definitions.ts';
import { sdkClients } from './sdk-definitions.ts';

export const clients = [...agentClients, ...sdkClients];

/**
 * @module gateway/config/config-file
 * Reads the GATEWAY_CONFIG file (YAML; JSON is valid YAML) and checks it against the contract,
 * with errors that name the file, the entry and the field.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type GatewayConfigFile, gatewayConfigFileSchema } from '../../contracts/gateway-config.ts';
import { describeIssues } from '../../contracts/validation-message.ts';

export function readConfigFile(file: string): GatewayConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read GATEWAY_CONFIG file ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (error) {
    throw new Error(`GATEWAY_CONFIG file ${file} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  const result = gatewayConfigFileSchema.safeParse(document);
  if (!result.success)
    throw new Error(`GATEWAY_CONFIG file ${file} is invalid: ${describeIssues(result.error.issues)}`);
  return result.data;
}

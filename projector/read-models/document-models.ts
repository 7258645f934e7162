/**
 * @module projector/read-models/document-models
 * The document read models, as one list the stores iterate: each knows which events it handles, which
 * document an event touches, and how the document evolves.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import * as channels from './channels/evolve.ts';
import * as tokens from './tokens/evolve.ts';
import * as users from './users/evolve.ts';

export interface DocumentModel {
  collection: string;
  canHandle(event: GatewayEvent): boolean;
  documentIdOf(event: GatewayEvent): string;
  evolve(document: unknown, event: GatewayEvent): unknown;
}

// The casts are safe: each model is only called after its own canHandle accepted the event.
export const documentModels: DocumentModel[] = [tokens, users, channels] as unknown as DocumentModel[];

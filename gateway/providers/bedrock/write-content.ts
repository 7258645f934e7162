/**
 * @module gateway/providers/bedrock/write-content
 * Neutral request parts as Converse content blocks. Bedrock takes images and documents as bytes only
 * (base64 in JSON), so a part given by URL or by a provider-side file id is refused with a 400 that
 * says so, rather than dropped: the answer would silently be about less than the client sent. Thinking
 * goes back with its signature (Claude verifies it); thinking without one cannot, and is left out.
 */
import type {
  ConverseContentBlock,
  ConverseDocumentFormat,
  ConverseImageFormat,
  ConverseToolResultContent,
} from '../../../contracts/bedrock/converse.ts';
import type { NeutralPart, NeutralResultContent } from '../../../contracts/neutral/request.ts';
import { GatewayError } from '../../errors.ts';
import { parseToolArguments } from '../conversion/tool-arguments.ts';
import { readSignature } from '../gemini/thought-signature.ts';

const imageFormats: Record<string, ConverseImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const documentFormats: Record<string, ConverseDocumentFormat> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

const refused = (message: string) => new GatewayError('invalid_request', message);

/** `data:<type>;base64,<bytes>` → its type and bytes; null for any other URL. */
function dataUrl(url: string): { mediaType: string; base64: string } | null {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), base64: match[2]! } : null;
}

/** Bedrock allows letters, digits, single spaces, hyphens, parentheses and square brackets in a name. */
function documentName(filename: string | undefined, index: number): string {
  const base = (filename ?? '').replace(/\.[^.]*$/, '');
  const cleaned = base
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned || `document-${index + 1}`;
}

function image(url: string): Extract<ConverseContentBlock, { image: unknown }> {
  const data = dataUrl(url);
  if (!data) {
    throw refused(
      'Image URLs are not available for this model: Bedrock takes images as data only. Send the image as a data: URL (base64).',
    );
  }
  const format = imageFormats[data.mediaType];
  if (!format)
    throw refused(`Images of type ${data.mediaType} are not available for this model: send PNG, JPEG, GIF or WebP.`);
  return { image: { format, source: { bytes: data.base64 } } };
}

function document(
  part: Extract<NeutralPart, { type: 'file' }>,
  index: number,
): Extract<ConverseContentBlock, { document: unknown }> {
  const data = part.data ? dataUrl(part.data) : null;
  if (!data) {
    throw refused(
      'Files are not available for this model by id or URL: Bedrock takes documents as data only. Send the file as base64 file_data.',
    );
  }
  const format = documentFormats[data.mediaType];
  if (!format) {
    throw refused(
      `Files of type ${data.mediaType} are not available for this model: send PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, TXT or Markdown.`,
    );
  }
  return { document: { format, name: documentName(part.filename, index), source: { bytes: data.base64 } } };
}

/** A tool result's parts, kept apart as Converse takes them (text, images, documents). */
function resultContent(
  part: Extract<NeutralPart, { type: 'tool-result' }>,
  index: number,
): ConverseToolResultContent[] {
  const parts: NeutralResultContent[] = part.content ?? [{ type: 'text', text: part.output }];
  const content = parts.flatMap((each): ConverseToolResultContent[] => {
    if (each.type === 'text') return each.text === '' ? [] : [{ text: each.text }];
    return each.type === 'image' ? [image(each.url)] : [document(each, index)];
  });
  // Converse refuses a tool result without content.
  return content.length > 0 ? content : [{ text: ' ' }];
}

const cachePoint: ConverseContentBlock = { cachePoint: { type: 'default' } };

/**
 * One part as Converse blocks ([] for what Converse cannot take back), followed by a cache point when
 * the client marked the part as a cache breakpoint; `warnings` names what was left out.
 */
export function contentBlocks(part: NeutralPart, index: number, warnings: string[]): ConverseContentBlock[] {
  const blocks = partBlocks(part, index, warnings);
  return 'cache' in part && part.cache && blocks.length > 0 ? [...blocks, cachePoint] : blocks;
}

function partBlocks(part: NeutralPart, index: number, warnings: string[]): ConverseContentBlock[] {
  switch (part.type) {
    case 'text':
      // Converse refuses a blank text block.
      return part.text.trim() === '' ? [] : [{ text: part.text }];
    case 'image':
      return [image(part.url)];
    case 'file':
      return [document(part, index)];
    case 'tool-call':
      return [{ toolUse: { toolUseId: part.id, name: part.name, input: parseToolArguments(part.arguments) ?? {} } }];
    case 'tool-result':
      return [
        {
          toolResult: {
            toolUseId: part.callId,
            content: resultContent(part, index),
            ...(part.isError && { status: 'error' as const }),
          },
        },
      ];
    case 'thinking':
      if (!part.signature) {
        warnings.push('thinking without a signature dropped: Bedrock accepts only signed reasoning back');
        return [];
      }
      // A Gemini signature (after a failover) is not Claude's: Bedrock would refuse the whole request.
      if (readSignature(part.signature) !== null) {
        warnings.push("thinking signed by Gemini dropped: only Gemini verifies Gemini's signatures");
        return [];
      }
      return [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }];
    case 'redacted-thinking':
      return [{ reasoningContent: { redactedContent: part.data } }];
  }
}

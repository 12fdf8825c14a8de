// Base64 image payloads: the spec's `imageData` is "a base64 data URL"; a bare base64 string is accepted too.
import { ImageError } from './errors';
import { MAX_IMAGE_BYTES } from './limits';

const DATA_URL = /^data:([^,;]*)((?:;[^,;]*)*?),/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/**
 * Decodes a data URL or bare base64 (standard or URL-safe alphabet, whitespace ignored) into bytes. The decoded
 * size is computed from the string length first, so an oversized payload is refused without allocating it. The
 * media type inside a data URL is ignored: the format is decided from the decoded bytes.
 */
export function decodeBase64Image(input: string, maxBytes = MAX_IMAGE_BYTES): Buffer {
  let payload = input;
  const m = DATA_URL.exec(input.slice(0, 256));
  if (m) {
    if (!/;base64$/i.test(m[2] ?? ''))
      throw new ImageError('invalid_base64', 'The data URL must be base64-encoded (data:<type>;base64,<data>)');
    payload = input.slice(m[0].length);
  } else if (/^data:/i.test(input)) {
    throw new ImageError('invalid_base64', 'Malformed data URL: expected data:<type>;base64,<data>');
  }
  if (/\s/.test(payload)) payload = payload.replace(/\s+/g, '');
  if (payload.length === 0) throw new ImageError('empty', 'The image data is empty');
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const decodedLength = Math.floor((payload.length * 3) / 4) - padding;
  if (decodedLength > maxBytes) {
    throw new ImageError('too_large', `The image is ${mb(decodedLength)}; the maximum is ${mb(maxBytes)}`, {
      maxBytes,
      bytes: decodedLength,
    });
  }
  const standard = BASE64.test(payload);
  if ((!standard && !BASE64URL.test(payload)) || payload.length % 4 === 1) {
    throw new ImageError('invalid_base64', 'The image data is not valid base64');
  }
  return Buffer.from(payload, standard ? 'base64' : 'base64url');
}

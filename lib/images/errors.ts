/** Why an image was refused. Routes map every reason to a 400 whose message is the error's message. */
export type ImageErrorReason =
  'empty' | 'invalid_base64' | 'too_large' | 'unsupported_format' | 'too_many_pixels' | 'corrupt';

export class ImageError extends Error {
  override readonly name = 'ImageError';
  constructor(
    readonly reason: ImageErrorReason,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const isImageError = (e: unknown): e is ImageError => e instanceof ImageError;

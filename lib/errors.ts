// The one vocabulary of bad input: an input the caller gave (a URL that is refused or has no image behind it, an
// image that cannot be decoded, a placement out of range) that no retry can fix. Engines and loaders throw
// BadInputError (or a subclass naming what was wrong); activities turn it into a non-retryable failure, the API
// into a 400. Anything else may be the moment's trouble and is retried or answered 5xx.

export class BadInputError extends Error {
  override name = 'BadInputError';
  /** read by callers that only see the error's shape: a retry will not help */
  readonly retryable = false;
}

/** True when `err` says the input is at fault (see BadInputError). */
export function isBadInput(err: unknown): err is BadInputError {
  return err instanceof BadInputError;
}

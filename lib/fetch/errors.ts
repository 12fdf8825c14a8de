/** Why a user-supplied URL was not fetched. Routes answer 400 with the message; `reason` is stable for clients. */
export type UrlFetchReason =
  | 'invalid_url'
  | 'unsupported_protocol'
  | 'credentials_in_url'
  | 'blocked_address'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'timeout'
  | 'too_large'
  | 'http_status'
  | 'network_error'
  | 'not_found';

export class UrlFetchError extends Error {
  override readonly name = 'UrlFetchError';
  constructor(
    readonly reason: UrlFetchReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const isUrlFetchError = (e: unknown): e is UrlFetchError => e instanceof UrlFetchError;

// EMAIL_VERIFICATION=required (docs/accounts.md#verify-email): an account whose Free tokens wait for its verified
// email is told so when a paid call finds its balance too low.
import { verificationState } from '../../db/account-lifecycle';
import type { AppDeps } from '../context';
import { ApiError } from '../errors';

/** Part B's message for an account whose Free tokens wait for a verified email. */
export const VERIFY_FOR_FREE_TOKENS = 'Verify your email to receive your free tokens';

/** True when the account's first Free allowance waits for its email to be verified. */
export async function freeTokensAwaitVerification(deps: Pick<AppDeps, 'sql'>, userId: string): Promise<boolean> {
  return (await verificationState(deps.sql, userId)).freeGrantPending;
}

/** A Part A 402 `insufficient_tokens`, with `details.reason: "email_unverified"` when that is why. */
export async function withVerificationReason(
  deps: Pick<AppDeps, 'sql'>,
  userId: string,
  err: ApiError,
): Promise<ApiError> {
  if (!(await freeTokensAwaitVerification(deps, userId))) return err;
  return new ApiError(err.status, err.code, `${err.message}. ${VERIFY_FOR_FREE_TOKENS}`, {
    ...(err.details ?? {}),
    reason: 'email_unverified',
  });
}

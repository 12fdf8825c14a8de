// The Free plan's allowance periods: whole months from the signup instant (db/accounts.ts grants by them; the SQL
// function allowance_period of db/migrations/032_one_round_trip_charge.sql computes the same periods, for the Free
// allowance pages and the low-balance mail, sent once per period by the debit's ledger_mail_if_low).

/** First day of the allowance period that contains `at`, anchored on the account's signup day of month. */
export function allowancePeriod(signup: Date, at: Date): { start: Date; end: Date } {
  const day = signup.getUTCDate();
  const anchor = (y: number, m: number) => {
    // A signup on the 31st renews on the last day of shorter months.
    const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    return new Date(
      Date.UTC(y, m, Math.min(day, last), signup.getUTCHours(), signup.getUTCMinutes(), signup.getUTCSeconds()),
    );
  };
  let start = anchor(at.getUTCFullYear(), at.getUTCMonth());
  if (start > at) start = anchor(at.getUTCFullYear(), at.getUTCMonth() - 1);
  const end = anchor(start.getUTCFullYear(), start.getUTCMonth() + 1);
  return { start, end };
}

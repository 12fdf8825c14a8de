// The connection the inspect helpers use (the run's shared pool), and a fragment for "that long ago".
import { testSql } from '../stack';

export const sql = () => testSql();

/** `interval` (a Postgres interval: '1 minute') before now, as a query fragment. */
export const ago = (interval: string) => sql()`now() - ${interval}::interval`;

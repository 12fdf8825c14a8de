// What tests read (and age) in the database directly, where no route shows it: small typed functions, one place for
// the test suite's SQL, by domain in this folder. Tests act and check through HTTP; these look behind the answer (a
// stored row, what a sweep left), move a row's clock back so a sweep or an expiry applies now, or make a state no
// route makes (a row a crash left, a lock held).
export * from './accounts';
export * from './bulk';
export * from './chat';
export * from './database';
export * from './generations';
export * from './ledger';
export * from './payments';
export * from './production';
export * from './rate-limits';
export * from './request-log';
export * from './storefront';
export * from './uploads';
export * from './webhooks';

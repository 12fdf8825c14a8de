// Fetching user-supplied URLs safely (SSRF guard) and recognizing URLs of the service's own files.
export * from './errors';
export * from './address-policy';
export * from './guarded-fetch';
export * from './own-files';

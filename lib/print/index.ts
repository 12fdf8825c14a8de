// Print production engines: print files (render.ts), their preflight (preflight.ts), print sizes by garment size
// (sizes.ts), the print cost (cost.ts). Pure: no database or Temporal imports.
export * from './cost';
export * from './preflight';
export * from './render';
export * from './sizes';
export * from './make';

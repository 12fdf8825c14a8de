// Production of paid orders: the job sheet PDF (job-sheet.ts), the ZIP of sheet and files (archive.ts), the flow's
// contract (types.ts). Pure: no database or Temporal imports.
export * from './archive';
export * from './job-sheet';
export * from './types';

// The template import workflow's contract (template-import-<template id>, on TEMPLATE_TASK_QUEUE): plain data only,
// imported by the workflow, its activities and the API. docs/templates.md.

export interface TemplateImportInput {
  templateId: string;
  accountId: string;
}

export interface TemplateImportResult {
  status: 'ready' | 'failed';
  error?: string;
}

/** The workflow id of a template's import: an operator pastes the template id from a response into the UI. */
export const templateImportWorkflowId = (templateId: string) => `template-import-${templateId}`;

/** Error types the import activities throw for a file no retry can read (malformed, over a limit). */
export const NON_RETRYABLE_TEMPLATE_ERRORS = ['BadInputError', 'TemplateLimitError'];

/** Storage keys of a template's files (all under templates/<id>/, deleted together). */
export const templateKeys = (templateId: string, format: 'psd' | 'psb' = 'psd') => ({
  prefix: `templates/${templateId}/`,
  source: `templates/${templateId}/source.${format}`,
  /** the preview and thumbnail as imports named them before their names carried a digest (still those of the
   * templates imported then and not prepared again since) */
  preview: `templates/${templateId}/preview.png`,
  thumbnail: `templates/${templateId}/thumbnail.webp`,
  /** the preview and thumbnail named by a digest of their bytes (refresh.ts storeOwnContent): a picture made again
   * differently gets a new key, so its URL changes and a cache never serves the old picture under it */
  previewOf: (digest: string) => `templates/${templateId}/preview-${digest}.png`,
  thumbnailOf: (digest: string) => `templates/${templateId}/thumbnail-${digest}.webp`,
  /** the prepared template's manifest: the engine's meta and the keys of its buffers */
  prepared: `templates/${templateId}/prepared.json`,
  /** a prepared buffer, named by its format (lib/templates/serialize.ts PREPARED_FORMAT): a template prepared again
   * writes new keys, never the buffers a reader of the manifest before it may be reading */
  buffer: (n: number, format: number) => `templates/${templateId}/prepared-v${format}-${n}.bin`,
});

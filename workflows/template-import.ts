// The template import workflow (id template-import-<template id>, task queue TEMPLATE_TASK_QUEUE): one activity reads
// the PSD, checks its limits, parses and prepares it once, stores the prepared buffers, the preview and the thumbnail
// and marks the template ready; any failure marks it failed with the reason. Orchestration only: the work is in
// activities/templates.ts. Imports are regular activities on their own queue, so heavy files run on the workers
// that serve it and never wait in line with renders.
import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  NON_RETRYABLE_TEMPLATE_ERRORS,
  type TemplateImportInput,
  type TemplateImportResult,
} from '../lib/template-import/types';
import { durableBookkeeping, imageRetry } from './policies';

// A 200 MB PSB takes tens of seconds: 10 minutes per attempt, heartbeats between the steps (a lost worker's attempt
// is retried after a minute), three attempts for transient trouble, none for a file that cannot be read.
const work = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: imageRetry(3, NON_RETRYABLE_TEMPLATE_ERRORS),
});

const book = proxyActivities<Activities>(durableBookkeeping(NON_RETRYABLE_TEMPLATE_ERRORS));

function reason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause.message;
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

export async function templateImport(input: TemplateImportInput): Promise<TemplateImportResult> {
  try {
    await work.importTemplate(input.templateId);
    return { status: 'ready' };
  } catch (err) {
    const error = reason(err);
    log.warn('template import failed', { templateId: input.templateId, error });
    await book.failTemplateImport(input.templateId, error);
    return { status: 'failed', error };
  }
}

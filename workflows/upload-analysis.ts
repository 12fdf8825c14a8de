// The upload analysis workflow (id upload-analysis-<upload id>, task queue TEMPORAL_TASK_QUEUE), started by POST
// /upload for each new upload: one activity analyses the upload in the worker and keeps the result as its latest
// analysis. Orchestration only: the work is in activities/upload-analysis.ts. A regular activity (not a local one), so
// a worker lost mid-analysis hands it to the next; an upload whose bytes cannot be read fails it at once.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  NON_RETRYABLE_UPLOAD_ANALYSIS_ERRORS,
  type UploadAnalysisInput,
  type UploadAnalysisResult,
} from '../lib/uploads/types';
import { imageRetry } from './policies';

// one analysis of a design within the upload limits takes well under a second; a minute per attempt covers a busy
// worker, five attempts over ~30 s a database or storage blip
const work = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: imageRetry(5, NON_RETRYABLE_UPLOAD_ANALYSIS_ERRORS),
});

export async function uploadAnalysis(input: UploadAnalysisInput): Promise<UploadAnalysisResult> {
  return work.analyzeUpload(input);
}

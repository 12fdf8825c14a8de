// The activity of the upload analysis workflow (workflows/upload-analysis.ts): a new upload's printability analysis,
// made in the worker and kept as the upload's latest (with the inks the contrast checks read). Thin: lib/analysis does
// the work; this reads the upload's row and bytes and writes the result. Idempotent on the upload (it writes only an
// upload without an analysis): one kept by an ask that came first (a generate, a POST /analyze) is left as it is, and
// so is a deleted upload.
import { saveUploadAnalysis, uploadsByKeys } from '../db/upload-library';
import { analysisToKeep } from '../lib/analysis';
import { Gate } from '../lib/gate';
import { isImageError } from '../lib/images';
import type { Storage } from '../lib/storage';
import { UPLOAD_ANALYSIS_QUANTITY, type UploadAnalysisInput, type UploadAnalysisResult } from '../lib/uploads/types';
import { nonRetryable, type BookkeepingDeps } from './deps';

export interface UploadAnalysisDeps extends BookkeepingDeps {
  storage: Storage;
}

/** New uploads' analyses a worker makes at once: one, so that a burst of uploads does not hold a decoded design per
 * activity slot (the analysis thread takes one at a time anyway) nor take every core from the API beside it. */
export const UPLOAD_ANALYSES_AT_ONCE = 1;

export function createUploadAnalysisActivities(deps: UploadAnalysisDeps) {
  const { sql, storage, log } = deps;
  const gate = new Gate(UPLOAD_ANALYSES_AT_ONCE);
  return {
    async analyzeUpload(input: UploadAnalysisInput): Promise<UploadAnalysisResult> {
      const [row] = await uploadsByKeys(sql, [input.storageKey]);
      if (!row || row.deleted || row.id !== input.uploadId) return { status: 'gone' };
      // a generate or POST /analyze of the design that came first made one (this version: the upload is new)
      if (row.analysis) return { status: 'kept' };
      const made = await gate.run(async () => {
        const file = await storage.get(input.storageKey);
        if (!file) return undefined;
        return analysisToKeep(file.body, { quantity: UPLOAD_ANALYSIS_QUANTITY }).catch((err: unknown) => {
          throw isImageError(err) ? nonRetryable('BadInputError', err.message) : err;
        });
      });
      if (!made) return { status: 'gone' };
      if (!(await saveUploadAnalysis(sql, row.userId, input.storageKey, made, { first: true })))
        return { status: 'kept' }; // one was kept meanwhile, or the upload was deleted
      log.info('upload analysed', { uploadId: input.uploadId });
      return { status: 'analyzed' };
    },
  };
}

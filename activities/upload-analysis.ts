// The activity of the upload analysis workflow (workflows/upload-analysis.ts): a new upload's printability analysis,
// made in the worker and kept as the upload's latest (with the inks the contrast checks read). Thin: lib/analysis does
// the work; this reads the upload's row and bytes and writes the result. Idempotent on the upload (it writes only an
// upload without an analysis): one kept by an ask that came first (a generate, a POST /analyze) is left as it is, and so is a deleted upload.
import { saveUploadAnalysis, uploadsByKeys } from '../db/upload-library';
import { analysisToKeep } from '../lib/analysis';
import { isImageError } from '../lib/images';
import type { Storage } from '../lib/storage';
import { UPLOAD_ANALYSIS_QUANTITY, type UploadAnalysisInput, type UploadAnalysisResult } from '../lib/uploads/types';
import { nonRetryable, type BookkeepingDeps } from './deps';

export interface UploadAnalysisDeps extends BookkeepingDeps {
  storage: Storage;
}

export function createUploadAnalysisActivities(deps: UploadAnalysisDeps) {
  const { sql, storage, log } = deps;
  return {
    async analyzeUpload(input: UploadAnalysisInput): Promise<UploadAnalysisResult> {
      const [row] = await uploadsByKeys(sql, [input.storageKey]);
      if (!row || row.deleted || row.id !== input.uploadId) return { status: 'gone' };
      // a generate or POST /analyze of the design that came first made one (this version: the upload is new)
      if (row.analysis) return { status: 'kept' };
      const file = await storage.get(input.storageKey);
      if (!file) return { status: 'gone' };
      try {
        const made = await analysisToKeep(file.body, { quantity: UPLOAD_ANALYSIS_QUANTITY });
        if (!(await saveUploadAnalysis(sql, row.userId, input.storageKey, made, { first: true })))
          return { status: 'kept' }; // one was kept meanwhile, or the upload was deleted
      } catch (err) {
        if (isImageError(err)) throw nonRetryable('BadInputError', err.message);
        throw err;
      }
      log.info('upload analysed', { uploadId: input.uploadId });
      return { status: 'analyzed' };
    },
  };
}

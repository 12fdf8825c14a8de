// The upload analysis workflow's contract (upload-analysis-<upload id>, on TEMPORAL_TASK_QUEUE): plain data only,
// imported by the workflow, its activity and the API. docs/uploads-and-analysis.md, "The latest analysis".

export interface UploadAnalysisInput {
  uploadId: string;
  accountId: string;
  /** the upload's original in storage (the analysis reads its bytes from there) */
  storageKey: string;
}

export interface UploadAnalysisResult {
  /** analyzed: made and kept now; kept: the upload had an analysis already (a generate or a POST /analyze of the
   * design came first); gone: the upload was deleted, or its file is no longer stored */
  status: 'analyzed' | 'kept' | 'gone';
}

/** The quantity a new upload's analysis prices for (POST /analyze's default). */
export const UPLOAD_ANALYSIS_QUANTITY = 50;

/** The workflow id of an upload's analysis: an operator pastes the upload id from a response into the UI. */
export const uploadAnalysisWorkflowId = (uploadId: string) => `upload-analysis-${uploadId}`;

/** Error types the activity throws for bytes no retry can read. */
export const NON_RETRYABLE_UPLOAD_ANALYSIS_ERRORS = ['BadInputError'];

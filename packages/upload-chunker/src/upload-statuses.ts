/** The upload statuses of the spec: a closed enum, checked on every answer. */
export const UPLOAD_STATUSES = ["pending", "uploading", "completed", "failed"] as const;

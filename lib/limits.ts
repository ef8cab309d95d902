/** Bounds on a job payload: generous for real artifacts, small enough that no job can fill a worker's disk. */
export const JOB_LIMITS = {
  /** Model and requirement names (they are folder and file names where runs are added from). */
  nameChars: 512,
  /** The artifact's path where it was added. */
  artifactChars: 4096,
  /** Files in one artifact. */
  files: 5000,
  /** One relative path inside an artifact, and one of its segments. */
  pathChars: 1024,
  segmentChars: 255,
  /** Repeats of one artifact (`queue add --repeats`). */
  repeat: 1000,
  /** The requirement (text, checklists, labels) as JSON. */
  reqChars: 1024 * 1024,
  /** Default cap on an artifact's decoded bytes in a job (`worker --max-job-mb`); `queue add`'s default is 8 MB. */
  defaultMaxBytes: 64 * 1024 * 1024,
} as const;

/**
 * An error in what the user gave us (a path, a file, a flag, a line of JSONL). The CLI prints its message as
 * one line on stderr and exits with status 2; it never shows a stack trace. Anything else that escapes is a
 * failure of the tool itself (exit 1).
 */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

import { readFileSync } from 'node:fs';
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

/** Read a text file the user named; a missing or unreadable file is an InputError naming it. */
export function readInputText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${path}: ${code === 'ENOENT' ? 'no such file' : errorMessage(err)}`);
  }
}

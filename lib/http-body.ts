/**
 * A request's body read whole, up to `maxBytes` (the local servers: the survey's and the arena's). A body over
 * the cap is drained but not kept, and answered as 'too-large' once it has ended, so the client gets a 413 rather
 * than a reset connection.
 */
import type { IncomingMessage } from 'node:http';

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

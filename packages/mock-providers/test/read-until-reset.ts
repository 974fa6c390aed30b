// For the reset-mid-stream fault: read a streamed body until the connection drops.
import { expect } from 'vitest';

/** The text a response delivered before its connection dropped; fails if the body ends cleanly. */
export async function readUntilReset(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  let received = '';
  await expect(
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += new TextDecoder().decode(value);
      }
    })(),
  ).rejects.toThrow();
  return received;
}

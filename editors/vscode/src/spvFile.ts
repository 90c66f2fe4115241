// Whether a file is a binary SPIR-V module: it starts with the magic number, in either byte order.
// (No vscode import: tests run it with node.)
import { promises as fs } from "fs";

const MAGIC = [0x07230203, 0x03022307];

export async function isBinaryFile(path: string): Promise<boolean> {
  const handle = await fs.open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && MAGIC.includes(head.readUInt32LE(0));
  } finally {
    await handle.close();
  }
}

// The documentation (README.md and docs/*.md): its code blocks, with `<!-- file: PATH -->` pins and
// `<!-- excerpt: PATH -->` marks, its headings' anchors, and a runner for `sh` blocks.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface Block {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The file a `<!-- file: PATH -->` marker above the block pins it to. */
  file?: string;
  /** The file a `<!-- excerpt: PATH -->` marker above the block says it is cut from. */
  excerpt?: string;
}

interface Page {
  /** Relative to the repository: README.md or docs/NAME.md. */
  path: string;
  text: string;
}

const ROOT = new URL('../../', import.meta.url);

/** The README and every page under docs/, in that order. */
export function docPages(): Page[] {
  const docs = readdirSync(new URL('docs/', ROOT))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(new URL(path, ROOT), 'utf8') }));
}

/** One page's text (README.md or docs/NAME.md). */
export function page(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

export function codeBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    // The marker is the nearest line above that is not blank (prettier puts a blank line in between).
    let above = i - 1;
    while (above > 0 && (lines[above] ?? '').trim() === '') above--;
    const marker = /^<!-- (file|excerpt): (\S+) -->$/.exec(lines[above] ?? '');
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    out.push({
      lang: open[1] ?? '',
      body: body.join('\n'),
      line: start + 1,
      ...(marker?.[1] === 'file' && marker[2] ? { file: marker[2] } : {}),
      ...(marker?.[1] === 'excerpt' && marker[2] ? { excerpt: marker[2] } : {}),
    });
  }
  return out;
}

/**
 * How long one `sh` block may run: a block that runs `npx mock-idp ...` takes ~3 s alone, but over 30 s
 * was seen while the full suite loads both cores (load 7 to 9).
 */
export const SHELL_BLOCK_TIMEOUT_MS = 90_000;

/** Runs an `sh` block with bash against a server on `port` (the examples say 127.0.0.1:8080). */
export async function runShellBlock(block: Block, port: number): Promise<string> {
  const script = block.body.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
  const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', script], {
    timeout: SHELL_BLOCK_TIMEOUT_MS,
  });
  return stdout;
}

/** The `# → text` lines a block shows as its output (a leading `…` stands for a path that varies). */
export function shownOutput(block: Block): string[] {
  return [...block.body.matchAll(/^# → (?:…)?(.*)$/gm)].map((m) => m[1] ?? '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks). */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (heading?.[1] !== undefined) out.add(anchor(heading[1]));
  }
  return out;
}

/** The relative links of a page (`[text](target)` outside code blocks), without http(s) and mail links. */
export function relativeLinks(markdown: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? '';
      if (!/^(https?:|mailto:)/.test(target)) out.push(target);
    }
  }
  return out;
}

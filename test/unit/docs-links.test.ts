// The README and docs/ link only inside the repository (issue 21: "No link leaves the repository"):
// every relative link resolves to a file of the repository (and, with a #fragment into a Markdown
// file, to one of its headings), and nothing links out: no URL, no absolute path, nothing above the
// repository's root. Code (fenced blocks and `spans`) is not a link and is not read.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** README.md and every Markdown file under docs/, as paths relative to the root. */
function documentationFiles(): string[] {
  const files = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) files.push(rel);
    }
  };
  walk('docs');
  return files.sort();
}

/** The text without fenced code blocks and with every code span replaced by a placeholder. */
function withoutCode(text: string): string {
  let fence: string | null = null;
  const kept = text.split('\n').map((line) => {
    const opener = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = null;
      return '';
    }
    if (opener) {
      fence = opener[1];
      return '';
    }
    return line;
  });
  return kept.join('\n').replace(/(`+)(?:(?!\1)[\s\S])+?\1/g, 'CODE');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const opener = /^\s*(```+|~~~+)/.exec(line);
    if (opener) {
      fence = fence ? null : opener[1];
      continue;
    }
    const heading = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const plain = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Every link target of a Markdown text: inline links and images, reference definitions, autolinks, HTML. */
function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  const targets: string[] = [];
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g)) targets.push(m[1]);
  for (const m of prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]);
  for (const m of prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)) targets.push(m[1]);
  for (const m of prose.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)) targets.push(m[1]);
  return targets;
}

/**
 * What is wrong with the links of one file (`file` relative to the root): each problem names the file
 * and the target. `readFile` reads another file of the repository by its relative path, or undefined.
 */
function linkProblems(file: string, text: string, readFile: (rel: string) => string | undefined): string[] {
  const problems: string[] = [];
  const prose = withoutCode(text);
  for (const m of prose.matchAll(/\b(?:https?|ftp|file):\/\/[^\s)>\]]+|\bwww\.[^\s)>\]]+/gi)) {
    problems.push(`${file}: address leaves the repository: ${m[0]}`);
  }
  for (const target of linkTargets(text)) {
    if (target === '') {
      problems.push(`${file}: empty link`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
      // Reported above when it is a web address; any other scheme (mailto:, ftp:) leaves too.
      if (!/^(?:https?|ftp|file):\/\//i.test(target)) problems.push(`${file}: link leaves the repository: ${target}`);
      continue;
    }
    if (target.startsWith('/')) {
      problems.push(`${file}: absolute path leaves the repository: ${target}`);
      continue;
    }
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const rel = pathPart === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart)));
    if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
      problems.push(`${file}: link leaves the repository: ${target}`);
      continue;
    }
    const linked = pathPart === '' ? text : readFile(rel);
    if (linked === undefined) {
      problems.push(`${file}: broken link: ${target} (no ${rel})`);
      continue;
    }
    if (fragment !== undefined && rel.endsWith('.md') && !anchorsOf(linked).has(fragment)) {
      problems.push(`${file}: broken link: ${target} (no heading #${fragment} in ${rel})`);
    }
  }
  return problems;
}

/** A repository file's text; a folder counts as present (GitHub shows it), with no headings. */
function readRepoFile(rel: string): string | undefined {
  const full = path.join(ROOT, rel);
  if (!fs.existsSync(full)) return undefined;
  return fs.statSync(full).isDirectory() ? '' : fs.readFileSync(full, 'utf8');
}

describe('links in README.md and docs/', () => {
  it('resolve inside the repository, and none leaves it', () => {
    const files = documentationFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', path.join('docs', 'architecture.md')]));
    const problems = files.flatMap((file) => linkProblems(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), readRepoFile));
    expect(problems).toEqual([]);
  });

  it('docs/decisions/README.md indexes every decision record', () => {
    const dir = path.join(ROOT, 'docs', 'decisions');
    const index = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    const records = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(records.filter((f) => !linkTargets(index).includes(f))).toEqual([]);
  });
});

describe('the link check', () => {
  const repo: Record<string, string> = {
    'README.md': '# Title\n\n## Two commands\n',
    'docs/runbook.md': "# Runbook\n\n## Finding a company's run\n\n## B2B: invite → register\n",
  };
  const check = (text: string, file = 'docs/x.md') => linkProblems(file, text, (rel) => repo[rel]);

  it('takes relative links to files and headings that exist', () => {
    expect(
      check('[a](../README.md) [b](runbook.md#finding-a-companys-run) [c](runbook.md#b2b-invite--register) [d](#x)\n\n# X\n', 'docs/x.md'),
    ).toEqual([]);
  });

  it('reports a missing file, a missing heading and a link above the root', () => {
    expect(check('[a](nothing.md) [b](runbook.md#nowhere) [c](../../shared/spec/b2b-portal.md)')).toEqual([
      'docs/x.md: broken link: nothing.md (no docs/nothing.md)',
      'docs/x.md: broken link: runbook.md#nowhere (no heading #nowhere in docs/runbook.md)',
      'docs/x.md: link leaves the repository: ../../shared/spec/b2b-portal.md',
    ]);
  });

  it('reports web addresses, other schemes and absolute paths, linked or bare', () => {
    expect(check('[a](https://example.com/x) see http://127.0.0.1:8233 and <mailto:ops@example.com> [b](/work/shared/DESIGN.md)')).toEqual([
      'docs/x.md: address leaves the repository: https://example.com/x',
      'docs/x.md: address leaves the repository: http://127.0.0.1:8233',
      'docs/x.md: absolute path leaves the repository: /work/shared/DESIGN.md',
      'docs/x.md: link leaves the repository: mailto:ops@example.com',
    ]);
  });

  it('does not read code', () => {
    expect(check('`http://127.0.0.1:8233` and `[a](nothing.md)`\n\n```bash\ncurl http://localhost:3000 # [b](x.md)\n```\n')).toEqual([]);
  });
});

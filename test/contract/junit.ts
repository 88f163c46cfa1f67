// Reads schemathesis' JUnit report: one <testcase> per operation, with a <failure> or <error>
// element per problem whose text is schemathesis' own summary (check, response, curl to reproduce).

export interface JunitCase {
  name: string;
  problems: string[];
}

export interface JunitReport {
  tests: number;
  failures: number;
  errors: number;
  cases: JunitCase[];
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
const unescape = (text: string) => text.replace(/&(lt|gt|quot|apos|amp);/g, (entity) => ENTITIES[entity] ?? entity);

function attribute(tag: string, name: string): number {
  return Number(new RegExp(`\\b${name}="(\\d+)"`).exec(tag)?.[1] ?? 0);
}

export function parseJunit(xml: string): JunitReport {
  const suites = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? '';
  const cases: JunitCase[] = [];
  for (const match of xml.matchAll(/<testcase\b[^>]*?name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = match[2] ?? '';
    const problems = [...body.matchAll(/<(failure|error)\b[^>]*>([\s\S]*?)<\/\1>/g)].map((p) => unescape(p[2] ?? '').trim());
    cases.push({ name: unescape(match[1] ?? ''), problems });
  }
  return { tests: attribute(suites, 'tests'), failures: attribute(suites, 'failures'), errors: attribute(suites, 'errors'), cases };
}

/** --cpu-prof: where the servers' CPU time went, from the profiles they write when they exit. */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROFILE_DIR, ROOT } from './paths';
import { fmt } from './stats';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Groups a frame into a package, a project file or a runtime bucket. */
function bucketOf(frame: { functionName: string; url: string }): string {
  const { url, functionName } = frame;
  if (!url) return functionName || '(anonymous)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + '/dist/'.length).replace(/\.js$/, '.ts') : url;
}

export async function summariseProfiles(): Promise<void> {
  if (!existsSync(PROFILE_DIR)) return;
  for (const file of (await readdir(PROFILE_DIR)).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const profile = JSON.parse(await readFile(path.join(PROFILE_DIR, file), 'utf8')) as CpuProfile;
    const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const self = new Map<string, number>();
    let busy = 0;
    profile.samples.forEach((id, i) => {
      const frame = frames.get(id)!;
      if (frame.functionName === '(idle)') return;
      const micros = profile.timeDeltas[i] ?? 0;
      busy += micros;
      const bucket = bucketOf(frame);
      self.set(bucket, (self.get(bucket) ?? 0) + micros);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
    console.log(`\nCPU self time of ${file} (busy ${fmt(busy / 1e6, 1)} s, whole process life incl. set-up and warm-ups):`);
    for (const [bucket, micros] of top) console.log(`  ${fmt((micros / busy) * 100, 1).padStart(5)}%  ${bucket}`);
  }
  console.log(`(profiles in ${path.relative(ROOT, PROFILE_DIR)}; open them in Chrome DevTools for call trees)`);
}

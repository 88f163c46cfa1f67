import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The embedded Arabic faces (Noto Naskh Arabic, SIL Open Font License, from @expo-google-fonts/noto-naskh-arabic). */
export interface DocumentFonts {
  regular: Buffer;
  bold: Buffer;
}

let loaded: DocumentFonts | undefined;
let loads = 0;

function fontDirectory(): string {
  return dirname(require.resolve('@expo-google-fonts/noto-naskh-arabic/package.json'));
}

/**
 * The font files, read from disk once per process and kept as Buffers; every document embeds (a subset
 * of) these same bytes. Reading them per render would cost a file read per PDF.
 */
export function documentFonts(): DocumentFonts {
  if (!loaded) {
    const dir = fontDirectory();
    loaded = {
      regular: readFileSync(join(dir, '400Regular', 'NotoNaskhArabic_400Regular.ttf')),
      bold: readFileSync(join(dir, '700Bold', 'NotoNaskhArabic_700Bold.ttf')),
    };
    loads += 1;
  }
  return loaded;
}

/** How many times the font files were read from disk in this process (1 once anything rendered: the bench checks it). */
export function fontLoads(): number {
  return loads;
}

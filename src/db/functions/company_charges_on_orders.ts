/**
 * Statement trigger on orders (insert, update): refreshes the orders the statement wrote.
 */
export const sql = String.raw`create or replace function company_charges_on_orders() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(select id from new_rows));
    return null;
  end $$;`;

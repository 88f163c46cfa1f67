/**
 * Statement trigger on order_items, activations and payments: refreshes the orders whose rows the statement wrote (each
 * trigger has only its own event's transition tables, so each branch names only those).
 */
export const sql = String.raw`create or replace function company_charges_on_order_rows() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then perform company_charges_refresh(array(select distinct order_id from new_rows));
    elsif tg_op = 'DELETE' then perform company_charges_refresh(array(select distinct order_id from old_rows));
    else perform company_charges_refresh(array(select order_id from new_rows union select order_id from old_rows));
    end if;
    return null;
  end $$;`;

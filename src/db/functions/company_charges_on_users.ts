/**
 * Statement trigger on users: a person's rename re-renders their charges.
 */
export const sql = String.raw`create or replace function company_charges_on_users() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(
      select c.order_id from company_charges c join new_rows n on n.id = c.user_id join old_rows o on o.id = n.id
       where n.name is distinct from o.name));
    return null;
  end $$;`;

/**
 * Statement trigger on packages: a package's rename re-renders the charges that name it.
 */
export const sql = String.raw`create or replace function company_charges_on_packages() returns trigger language plpgsql as $$
  begin
    perform company_charges_refresh(array(
      select c.order_id from company_charges c join new_rows n on n.id = c.package_id join old_rows o on o.id = n.id
       where n.name_en is distinct from o.name_en));
    return null;
  end $$;`;

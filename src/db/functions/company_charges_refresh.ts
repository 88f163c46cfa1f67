/**
 * Recomputes the billing read model (company_charges, company_order_lines; src/entities/company-charge.ts) of the
 * given orders from orders, order_items, activations and payments. A charge is a paid or completed company order with an
 * activation that is not failed or cancelled; a line counts activated activations, an erased person's included (their seat
 * stays drawn). It first locks, in id order, the orders whose rows may change, and only then deletes and reads, so two
 * transactions touching one order recompute one after the other. The charge entry renders its amount from halalas with
 * halalas_sar_text, and the companies whose rows it rewrote are recorded for their version to be raised at commit
 * (company_charge_versions_record, company_charge_versions_bump). Migrations CompanyCharges, MoneyUnits,
 * ChargeVersionsAtCommit and ErasedSeatsStayDrawn say why each part is so.
 */
export const sql = String.raw`create or replace function company_charges_refresh(p_orders uuid[]) returns void language plpgsql as $$
  declare
    v_orders uuid[];
    v_companies uuid[];
  begin
    if coalesce(cardinality(p_orders), 0) = 0 then return; end if;
    perform 1 from orders o
      where o.id = any(p_orders)
        and (o.company_id is not null
             or exists (select 1 from company_charges c where c.order_id = o.id)
             or exists (select 1 from company_order_lines l where l.order_id = o.id))
      order by o.id for update;
    with charges as (delete from company_charges where order_id = any(p_orders) returning company_id),
         lines as (delete from company_order_lines where order_id = any(p_orders) returning company_id)
    select array(select company_id from charges union select company_id from lines) into v_companies;
    select array_agg(id order by id) into v_orders from orders where id = any(p_orders) and company_id is not null;
    if v_orders is not null then
      v_companies := array(select unnest(v_companies) union select company_id from orders where id = any(v_orders));
      insert into company_charges (order_id, company_id, created_at, user_id, package_id, amount_halalas, payment_id, charge_json)
      select c.id, c.company_id, c.created_at, c.user_id, c.package_id, c.total_halalas, c.payment_id,
             json_build_object('date', to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'personName', c.name,
                               'packageName', coalesce(p.name_en, ''), 'amountSar', halalas_sar_text(c.total_halalas)::json,
                               'paymentId', c.payment_id)::text
        from (select o.id, o.company_id, o.created_at, o.user_id, o.total_halalas, u.name,
                     (select oi.package_id from order_items oi where oi.order_id = o.id order by oi.id limit 1) as package_id,
                     (select pay.id from payments pay where pay.order_id = o.id and pay.status = 'completed'
                       order by pay.paid_at desc nulls last, pay.created_at desc, pay.id limit 1) as payment_id
                from orders o join users u on u.id = o.user_id
               where o.id = any(v_orders) and o.status in ('paid', 'completed')
                 and exists (select 1 from activations a where a.order_id = o.id and a.status not in ('failed', 'cancelled'))) c
        left join packages p on p.id = c.package_id;
      insert into company_order_lines (order_id, package_id, company_id, activations, halalas)
      select o.id, a.package_id, o.company_id, count(*), sum(oi.unit_price_halalas * oi.quantity)::bigint
        from orders o
        join activations a on a.order_id = o.id and a.status = 'activated'
        join order_items oi on oi.id = a.order_item_id
       where o.id = any(v_orders) and o.status in ('paid', 'completed')
       group by o.id, a.package_id, o.company_id;
    end if;
    perform company_charge_versions_record(v_companies);
  end $$;`;

import { defineEntity, p } from '@mikro-orm/core';
import { Package } from './catalog';
import { User } from './user';

/** `cancelled` is ours: an order whose activation was cancelled unpaid. */
export const ORDER_STATUSES = ['pending_payment', 'paid', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * An order; amounts in whole halalas. The app writes every order in SAR (`currency`), so the total is
 * also the minor units a payment of the order copies (every currency the service handles has 2 decimals).
 */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    user: () => p.manyToOne(User).mapToPk().index(),
    companyId: p.uuid().nullable().index(),
    status: p.enum(ORDER_STATUSES).default('pending_payment'),
    totalHalalas: p.bigint('number'),
    currency: p.string().length(3).default('SAR'),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const OrderItem = defineEntity({
  name: 'OrderItem',
  tableName: 'order_items',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    order: () => p.manyToOne(Order).mapToPk().deleteRule('cascade').index(),
    package: () => p.manyToOne(Package).mapToPk(),
    iccid: p.string().length(255),
    quantity: p.integer().default(1),
    unitPriceHalalas: p.bigint('number'),
  },
});

import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { itemCodes, type ItemCode } from '../../src/http/error-codes';
import {
  LINK_MINT_CODES,
  LINK_REVOKE_CODES,
  LINK_SEND_CODES,
  ROSTER_ROW_CODES,
  itemResult,
  itemResultSchema,
} from '../../src/http/item-results';
import { z } from '../../src/openapi/registry';

describe('itemResult', () => {
  it('adds the code and both messages from the table to the fields', () => {
    expect(itemResult('ROSTER_ROW_INVALID_PHONE', { rowNumber: 3, field: 'phone' })).toEqual({
      rowNumber: 3,
      field: 'phone',
      code: 'ROSTER_ROW_INVALID_PHONE',
      messageEn: 'The phone number is invalid',
      messageAr: 'رقم الجوال غير صالح',
    });
    expect(itemResult('NO_ACTIVE_LINK', { rosterId: 'r1' })).toEqual({
      rosterId: 'r1',
      code: 'NO_ACTIVE_LINK',
      messageEn: itemCodes.NO_ACTIVE_LINK.en,
      messageAr: itemCodes.NO_ACTIVE_LINK.ar,
    });
  });

  it('lets the table win over same-named fields', () => {
    const spoofed = { rosterId: 'r1', code: 'X', messageEn: 'x', messageAr: 'x' };
    expect(itemResult('LINK_DELIVERY_FAILED', spoofed)).toMatchObject({
      code: 'LINK_DELIVERY_FAILED',
      messageEn: itemCodes.LINK_DELIVERY_FAILED.en,
    });
  });

  it('has an English and an Arabic message for every code of every list', () => {
    const all: readonly ItemCode[] = [...ROSTER_ROW_CODES, ...LINK_SEND_CODES, ...LINK_REVOKE_CODES];
    for (const code of all) {
      expect(itemCodes[code].en.length).toBeGreaterThan(0);
      expect(itemCodes[code].ar).toMatch(/[\u0600-\u06ff]/);
    }
    expect(LINK_SEND_CODES).toEqual([...LINK_MINT_CODES, 'LINK_DELIVERY_FAILED']);
    expect(new Set(all)).toEqual(new Set(Object.keys(itemCodes)));
  });
});

describe('itemResultSchema', () => {
  const Rejected = itemResultSchema({ rowNumber: z.number().int().min(1), field: z.string() }, ROSTER_ROW_CODES, 'RosterRowRejection');

  it('accepts what itemResult builds and refuses a code outside the list', () => {
    const row = itemResult('ROSTER_ROW_MISSING_CONTACT', { rowNumber: 1, field: 'phone' });
    expect(Rejected.parse(row)).toEqual(row);
    expect(Rejected.safeParse({ ...row, code: 'NO_ACTIVE_LINK' }).success).toBe(false);
    expect(Rejected.safeParse({ rowNumber: 1, field: 'phone', code: 'ROSTER_ROW_MISSING_CONTACT' }).success).toBe(false);
  });

  it('documents code as an enum of the allowed codes', () => {
    const registry = new OpenAPIRegistry();
    registry.register('RosterRowRejection', Rejected);
    registry.register('LinkRevokeSkip', itemResultSchema({ rosterId: z.uuid() }, LINK_REVOKE_CODES, 'LinkRevokeSkip'));
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    const rejection = doc.components!.schemas!.RosterRowRejection as {
      required: string[];
      properties: Record<string, { enum?: string[] }>;
    };
    expect(rejection.required).toEqual(['rowNumber', 'field', 'code', 'messageEn', 'messageAr']);
    expect(rejection.properties.code.enum).toEqual([...ROSTER_ROW_CODES]);
    const skip = doc.components!.schemas!.LinkRevokeSkip as { properties: Record<string, { enum?: string[] }> };
    expect(skip.properties.code.enum).toEqual(['ROSTER_ENTRY_NOT_FOUND', 'LINK_ALREADY_USED', 'NO_ACTIVE_LINK']);
  });
});

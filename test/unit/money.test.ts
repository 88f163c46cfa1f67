import { fromMinorUnits, toMinorUnits } from '../../src/lib/money';

describe('money in minor units', () => {
  it.each([
    ['49.00', 'SAR', 4900n],
    ['0.29', 'USD', 29n],
    ['1.005', 'KWD', 1005n],
    ['99999999.99', 'SAR', 9999999999n],
    ['19.99', 'usd', 1999n],
  ])('%s %s is %s minor units, exactly', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
  });

  it('is exact where float multiplication is not', () => {
    expect(0.29 * 100).not.toBe(29);
    expect(toMinorUnits('0.29', 'SAR')).toBe(29n);
    expect(1.15 * 100).not.toBe(115);
    expect(toMinorUnits('1.15', 'SAR')).toBe(115n);
  });

  it('refuses more precision than the currency has, and converts back', () => {
    expect(() => toMinorUnits('1.001', 'SAR')).toThrow();
    expect(fromMinorUnits(4900n, 'SAR')).toBe('49.00');
    expect(fromMinorUnits('1005', 'KWD')).toBe('1.005');
  });
});

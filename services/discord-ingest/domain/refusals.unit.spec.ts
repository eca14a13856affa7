import { refusal } from './refusals';

describe('refusal', () => {
  it('says what to enable for 4014 and what to replace for 4004 and a 401, in one line', () => {
    const intents = refusal({ closeCode: 4014 })!;
    expect(intents).toMatch(
      /Privileged Gateway Intents, enable Message Content Intent and Server Members Intent/,
    );
    for (const r of [{ closeCode: 4004 }, { httpStatus: 401 }]) {
      expect(refusal(r)).toMatch(/Discord refused DISCORD_TOKEN .*Reset Token/);
    }
    for (const r of [intents, refusal({ closeCode: 4004 })!]) expect(r).not.toContain('\n');
  });

  it('leaves every other close and status to the retries', () => {
    for (const r of [{ closeCode: 1006 }, { closeCode: 4000 }, { httpStatus: 500 }, {}]) {
      expect(refusal(r)).toBeNull();
    }
  });
});

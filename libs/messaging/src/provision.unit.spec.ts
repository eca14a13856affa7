import { jetStreamReplicas, sameSettings } from './provision';

describe('jetStreamReplicas', () => {
  it('is 1 unless DIRIGENT_JETSTREAM_REPLICAS says otherwise', () => {
    expect(jetStreamReplicas({})).toBe(1);
    expect(jetStreamReplicas({ DIRIGENT_JETSTREAM_REPLICAS: '' })).toBe(1);
    expect(jetStreamReplicas({ DIRIGENT_JETSTREAM_REPLICAS: '3' })).toBe(3);
  });

  it.each(['0', '6', '2.5', 'three'])('refuses %s, naming the variable', (raw) => {
    expect(() => jetStreamReplicas({ DIRIGENT_JETSTREAM_REPLICAS: raw })).toThrow(
      /DIRIGENT_JETSTREAM_REPLICAS must be an integer from 1 to 5/,
    );
  });
});

describe('sameSettings', () => {
  it('holds when every wanted setting is already there, whatever else the server reports', () => {
    const current = { subjects: ['a.>', 'b'], num_replicas: 1, max_age: 0, storage: 'file' };
    expect(sameSettings(current, { subjects: ['a.>', 'b'], num_replicas: 1, max_age: 0 })).toBe(
      true,
    );
    expect(sameSettings(current, { subjects: ['a.>'], num_replicas: 1 })).toBe(false);
    expect(sameSettings(current, { num_replicas: 3 })).toBe(false);
    expect(sameSettings(current, { filter_subject: 'x' })).toBe(false);
  });
});

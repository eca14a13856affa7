import { jetStreamReplicas } from './provision';

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

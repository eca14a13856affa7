import { classifyFailure, DiscordCodes } from './errors';

describe('classifyFailure', () => {
  it.each([
    [{ status: 500 }, 'transient'],
    [{ status: 502 }, 'transient'],
    [{ status: 429 }, 'transient'],
    [{ status: 408 }, 'transient'],
    [{}, 'transient'],
    [{ status: 403, code: DiscordCodes.MissingAccess }, 'permanent'],
    [{ status: 404, code: DiscordCodes.UnknownChannel }, 'permanent'],
    [{ status: 400, code: 50035 }, 'permanent'],
  ] as const)('%j on send is %s', (failure, expected) => {
    expect(classifyFailure(failure, 'send')).toBe(expected);
  });

  it('treats deleting a message that is gone as done', () => {
    expect(classifyFailure({ status: 404, code: DiscordCodes.UnknownMessage }, 'delete')).toBe(
      'already-done',
    );
    expect(classifyFailure({ status: 404, code: DiscordCodes.UnknownChannel }, 'delete')).toBe(
      'permanent',
    );
  });
});

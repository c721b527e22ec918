import { describe, expect, it } from 'vitest';
import { dropHostProcessEnv, HOST_ALLOCATOR_ENV, hostProcessEnv } from '../../../src/app/client/hostLauncher';

describe('the host process environment', () => {
  it('adds the mark and the allocator settings, and the host takes both out again', () => {
    const started = hostProcessEnv({ PATH: '/bin', HOME: '/home/me' });
    expect(started).toMatchObject({ PATH: '/bin', HOME: '/home/me', TERMIO_HOST_PROCESS: '1', ...HOST_ALLOCATOR_ENV });
    dropHostProcessEnv(started);
    expect(started).toEqual({ PATH: '/bin', HOME: '/home/me' });
  });

  it('keeps an allocator setting the user made, for the host and for its sessions', () => {
    const started = hostProcessEnv({ PATH: '/bin', MALLOC_ARENA_MAX: '4' });
    expect(started.MALLOC_ARENA_MAX).toBe('4');
    expect(started.MALLOC_MMAP_THRESHOLD_).toBe(HOST_ALLOCATOR_ENV.MALLOC_MMAP_THRESHOLD_);
    dropHostProcessEnv(started);
    expect(started).toEqual({ PATH: '/bin', MALLOC_ARENA_MAX: '4' });
  });

  it('removes only the allocator settings it knows, whatever the list names', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin', TERMIO_HOST_PROCESS: '1', TERMIO_HOST_ALLOCATOR: 'PATH,MALLOC_ARENA_MAX', MALLOC_ARENA_MAX: '2' };
    dropHostProcessEnv(env);
    expect(env).toEqual({ PATH: '/bin' });
  });
});

/**
 * Prints the master's `accounts` block for the relays it admits (include it in the master's
 * nats-server.conf next to `leafnodes { port: 7422 }`):
 *
 *   node dist/services/relay/accounts.js relay-a:<password> relay-b:<password> > relays.conf
 *
 * It holds the `leafnodes` block too (`DIRIGENT_LEAF_LISTEN`, default `0.0.0.0:7422`).
 * `DIRIGENT_NATS_SERVICE_PASSWORD` sets a password on the services' own user (`dirigent`).
 * `--service-users` (deploy/k8s) gives each service its own user with allow-lists instead,
 * included from `service-users.conf`; then no relay at all is fine too:
 *
 *   node dist/services/relay/accounts.js --service-users relay-a:<password> > auth.conf
 *
 * `--service-users-conf` prints those users (deploy/k8s/nats.yaml's `service-users.conf`).
 */
import { serviceUsersConfig } from '@dirigent/contracts';
import { masterAccountsConfig, type RelayCredentials } from './nats-config';

function parse(arg: string): RelayCredentials {
  const at = arg.indexOf(':');
  if (at <= 0) throw new Error(`"${arg}" must be instance:password`);
  return { instance: arg.slice(0, at), password: arg.slice(at + 1) };
}

try {
  const args = process.argv.slice(2);
  if (args[0] === '--service-users-conf') {
    // deploy/k8s/nats.yaml's service-users.conf: the services' users and allow-lists.
    process.stdout.write(serviceUsersConfig());
    process.exit(0);
  }
  const serviceUsers = args.includes('--service-users');
  const relays = args.filter((a) => a !== '--service-users').map(parse);
  if (relays.length === 0 && !serviceUsers) {
    throw new Error('name at least one relay: instance:password');
  }
  const password = process.env.DIRIGENT_NATS_SERVICE_PASSWORD;
  process.stdout.write(
    masterAccountsConfig({
      relays,
      serviceUsers,
      ...(process.env.DIRIGENT_LEAF_LISTEN ? { leafListen: process.env.DIRIGENT_LEAF_LISTEN } : {}),
      ...(password ? { serviceUser: { user: 'dirigent', password } } : {}),
    }),
  );
} catch (e) {
  console.error(`relay accounts: ${(e as Error).message}`);
  process.exit(2);
}

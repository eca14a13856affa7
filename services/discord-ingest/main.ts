import { runService } from '@dirigent/service-kit';
import { DiscordIngestService } from './definition';

runService(DiscordIngestService);

import { runService } from '@dirigent/service-kit';
import { DiscordIngestService } from './discord-ingest.module';

runService(DiscordIngestService);

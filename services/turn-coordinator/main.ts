import { runService } from '@dirigent/service-kit';
import { TurnCoordinatorService } from './turn-coordinator.module';

runService(TurnCoordinatorService);

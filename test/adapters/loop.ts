/** The LangGraph loop the adapter tests wire: agent → tools → checkStop → agent | END. */
import { START, type StateGraph } from '@langchain/langgraph';
import { routeOnOrderGap } from '../../src/adapters/langgraph.js';

/** A graph with the loop's three nodes added (any state, update and config types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LoopNodes = StateGraph<any, any, any, 'agent' | 'tools' | 'checkStop' | typeof START>;

/**
 * Adds the loop's edges to `graph`: the agent asks, the tools answer, the order-gap node decides,
 * and its conditional edge ends the run or goes back to the agent.
 */
export function orderGapEdges<G extends LoopNodes>(graph: G): G {
  return graph
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', 'checkStop')
    .addConditionalEdges('checkStop', routeOnOrderGap('agent'));
}

"""pydantic-ai as an application uses it: an Agent on an OpenAI Chat Completions model with a base URL and
a local tool, its own tool loop. Run by the clients suite from the Python SDKs' venv (sdk-definitions.ts)."""
import os

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

env = os.environ
provider = OpenAIProvider(base_url=env["GATEWAY_URL"] + "/v1", api_key=env["GATEWAY_KEY"])
agent = Agent(OpenAIChatModel(env["MODEL"], provider=provider))

if env["CHECK"] == "tool":

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Reads a text file and returns its content."""
        with open(path, encoding="utf-8") as file:
            return file.read()


print(agent.run_sync(env["PROMPT"]).output)
